"""What every layer uses and no rule knows: crash-safe files (:mod:`.files`), JSON configs
(:mod:`.config_files`), deferred interrupts, SIGTERM included (:mod:`.interrupts`), output folder
locks (:mod:`.locks`), one-line errors (:mod:`.errors`) and the first-compilation note
(:mod:`.compile_note`)."""
