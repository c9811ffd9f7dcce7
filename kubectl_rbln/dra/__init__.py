"""dra package."""
