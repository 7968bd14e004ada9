// The Store module; see docs/ARCHITECTURE.md.
