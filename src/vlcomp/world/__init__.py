"""The synthetic world: scenes, renderer, caption grammar and parser, oracle, scene edits."""
