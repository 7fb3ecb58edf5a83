"""paipu's replay side: cards, the hand record, readers and the rules engines."""
