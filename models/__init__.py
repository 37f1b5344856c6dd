"""The shipped models: weights (``NAME.pt``) + JSON config (``NAME.json``) pairs, read through
:func:`mancala_envs.agents.model_files.shipped_model`; see README.md beside them."""
