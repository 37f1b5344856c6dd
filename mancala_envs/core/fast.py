"""The two tricks of the kernels' hot loops: compiling without reference counting, and cheap
uniform draws.

**No reference counting.** Numba counts references to arrays with atomic increments and
decrements (NRT), and a function that receives an array counts it on entry and on exit. The
engine passes the packed state, the rules and the scratch through many small named functions (one
per rule, as the rulebook reads), so in a tight loop those atomics cost more than the rules
themselves (measured: two thirds of the time of ``random_games``). Functions that allocate
nothing are therefore compiled with :data:`kernel` (``njit(cache=True, _nrt=False)``), which
emits no reference counting at all; they take arrays from their callers and never create,
keep or return one (an inlined view of an argument, which allocates nothing, is the exception:
``relay_slot``). Functions that allocate (scratch, results) keep plain ``njit(cache=True)``.

**Direct calls.** A call through a numba dispatcher first works out the argument types (about
half the cost of a small call from Python). Where Python calls one kernel over and over with
arguments of fixed types (``Game.apply``, the cursor), :func:`entry_point` looks the compiled
function up once and returns it, to be called with arguments of exactly those types.

**Draws.** numba's ``Generator.integers`` allocates on every call (about 50 ns here);
:func:`random_below` draws ``floor(k * rng.random())`` from the same seeded generator (3 ns),
uniform over ``0..k-1`` up to a relative error of ``2**-53`` per value. The random players go
further: one draw ``u`` orders all the candidate holes (each pick takes ``floor(u * k)`` and keeps
the fraction ``u * k - floor(u * k)``, itself uniform, for the next pick); ten picks use about
22 of the draw's 53 bits, so the order is uniform up to a relative error of about ``2**-31``.
"""

from __future__ import annotations

from numba import njit

kernel = njit(cache=True, _nrt=False)  # an allocation-free kernel, without reference counting
inline_kernel = njit(cache=True, _nrt=False, inline="always")  # the same, inlined where it is called


@kernel
def random_below(rng, k):
    """A uniform integer in ``0..k-1`` from ``rng`` (module docstring); ``k >= 1``."""
    return int(rng.random() * k)


_ENTRY_POINTS: dict = {}


def entry_point(dispatcher, *example_args):
    """The compiled function behind ``dispatcher`` for the types of ``example_args`` (compiled or
    loaded from the cache on the first request), callable with arguments of exactly those types;
    the dispatcher itself if numba offers no such entry (module docstring)."""
    try:
        signature = tuple(dispatcher.typeof_pyval(a) for a in example_args)
    except (AttributeError, TypeError):
        return dispatcher
    key = (dispatcher, signature)
    if key not in _ENTRY_POINTS:
        try:
            dispatcher.compile(signature)
            _ENTRY_POINTS[key] = dispatcher.overloads[signature].entry_point
        except (AttributeError, KeyError, TypeError):  # another numba: keep the dispatcher
            _ENTRY_POINTS[key] = dispatcher
    return _ENTRY_POINTS[key]
