"""What is published: CSV exports, round posts and charts."""
