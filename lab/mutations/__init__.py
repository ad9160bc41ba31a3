"""Mutation testing of the claims: a catalogue of broken behaviours and the matrix they give."""
