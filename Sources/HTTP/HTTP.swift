// The HTTP module; see docs/ARCHITECTURE.md.
