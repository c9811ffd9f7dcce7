"""remedy package."""
