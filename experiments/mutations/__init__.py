"""The suite's mutation catalogue (:mod:`experiments.mutations.catalogue`): the harness's
behaviours broken on purpose, their patches, and the rows no mutation can flip
(:mod:`experiments.mutations.guards`), handed to lab's engine (:mod:`lab.mutations`)."""
