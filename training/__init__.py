"""Training scripts, each one algorithm top to bottom in the CleanRL manner: MaskablePPO self-play
against an opponent pool (:mod:`.train_ppo`, ``mancala train``; the pool: :mod:`.opponents`),
AlphaZero-style self-play (:mod:`.train_alphazero`, ``mancala train-az``), distillation of minimax
over an az model (:mod:`~mancala_envs.training.distill_az`, ``mancala distill-az``) and Ray RLlib
(:mod:`~mancala_envs.training.train_rllib`, ``mancala train-rllib``). What they share: their
arguments (:mod:`.args`) and their run folder (:mod:`.run`, one ``eval.csv`` schema for all)."""
