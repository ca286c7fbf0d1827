"""`referee board`: the table's public state as a web page for a TV or a phone."""
