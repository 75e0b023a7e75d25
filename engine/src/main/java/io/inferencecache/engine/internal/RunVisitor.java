package io.inferencecache.engine.internal;

/**
 * What a reader does with one stored run while it is open ({@link RunCursor#visit}): called once,
 * under the run's segment read lock, with the cursor on the run and its {@link RunCursor#row()} at
 * the probed key. Everything it needs from the run must be read before it returns.
 */
public interface RunVisitor {
  void visit(RunCursor run);
}
