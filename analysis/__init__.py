"""paipu's analysis side: DuckDB queries over the dataset, detectors and reports."""
