package io.inferencecache.controlplane.controller;

/** Named daemon threads for the controller's background work (never keeps the JVM alive). */
final class Daemons {
  private Daemons() {}

  static Thread thread(final Runnable r, final String name) {
    final Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
