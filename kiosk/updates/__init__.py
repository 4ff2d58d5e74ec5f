"""Updates of the whole system: signed RAUC bundles written into the slot not running, tried once
at the next boot, kept only when the new system proves itself (docs/deploy.md, "Updates")."""
