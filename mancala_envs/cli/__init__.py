"""The command line, and nothing below it parses one: the ``mancala`` command (:mod:`.main`, a
table of its subcommands, one module each: ``play``, ``tournament``, ``replay``, ``train``,
``train_az``, ``distill_az``, ``evaluate``, ``optimality``, ``tablebase``, ``solve``, ``dataset``,
``train_rllib``, ``serve``) and the parsers of the ``python -m`` entries of lower modules
(``balance``, ``model_files``, ``demo``), which those modules' ``__main__`` calls. What they share
is :mod:`.parsing`. The training scripts (:mod:`mancala_envs.training`) parse their own arguments."""
