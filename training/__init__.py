"""Training: MaskablePPO self-play against an opponent pool (:mod:`mancala_envs.training.train_ppo`, ``mancala
train``), the pool (:mod:`mancala_envs.training.opponents`) and the evaluation against the baselines
(:mod:`mancala_envs.evaluation.evaluate`, ``mancala evaluate``)."""
