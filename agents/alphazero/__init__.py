"""AlphaZero-style play (Gumbel MuZero search over a policy/value network).

:mod:`.tree` (the batched tree), :mod:`.qtransforms` (completed Q values), :mod:`.select` (root
and interior action selection), :mod:`.search` (the search),
:mod:`~mancala_envs.agents.alphazero.network` (the network and its files), :mod:`.losses` (the
training losses), :mod:`.forced_end` (finishing decided games), :mod:`.value_minimax` (minimax
over the value head) and :mod:`~mancala_envs.agents.alphazero.agent` (``az``).
"""
