package io.inferencecache.perf.replay;

/** The (tenant, model, scheme) scope the replay reports into and its replica names. */
final class ReplayNames {
  static final String TENANT = "tenant-replay";
  static final String SCHEME = "vllm";

  final String model;
  final String[] replicas;

  ReplayNames(final String model, final int copies, final int perCopy) {
    this.model = model;
    this.replicas = new String[copies * perCopy];
    for (int k = 0; k < copies; k++) {
      for (int i = 0; i < perCopy; i++) {
        replicas[k * perCopy + i] = String.format("replay-c%02d-r%03d", k, i);
      }
    }
  }
}
