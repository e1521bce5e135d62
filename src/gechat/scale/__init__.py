"""Past one machine: bulk ingestion as Ray tasks onto a shared store (docs/deploy.md)."""
