"""The shipped proofs of the solved games (package data, ``mancala_envs.solutions``): one folder
per solve, its ``solution.json`` beside its proofs; ``mancala solve --check VARIANT`` checks one
from a pip install (docs/solving.md)."""
