"""Readers and writers at the edges: JSONL records, the paipu text format, foreign logs."""
