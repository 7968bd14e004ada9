// The Primitives module; see docs/ARCHITECTURE.md.
