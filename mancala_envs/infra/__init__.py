"""What every layer uses and no rule knows: crash-safe files (:mod:`.files`), JSON configs
(:mod:`.config_files`), deferred interrupts (:mod:`.interrupts`) and the first-compilation note
(:mod:`.compile_note`)."""
