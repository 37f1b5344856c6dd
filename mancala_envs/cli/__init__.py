"""The ``mancala`` command (:mod:`.main`) and its ``tablebase`` subcommand
(:mod:`~mancala_envs.cli.tablebase`)."""
