// The DeliveryStore module; see docs/ARCHITECTURE.md.
