"""Mutation testing of the claims, the engine: a suite hands it a catalogue of broken behaviours
(:class:`~lab.mutations.mutation.Catalogue`) and it computes the matrix they give
(:mod:`lab.mutations.matrix`). Generic patches in :mod:`lab.mutations.patching`, rewritten
answers in :mod:`lab.mutations.answers`."""
