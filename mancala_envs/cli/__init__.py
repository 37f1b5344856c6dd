"""The ``mancala`` command (:mod:`.main`) and its ``tablebase`` subcommand (:mod:`.tablebase`)."""
