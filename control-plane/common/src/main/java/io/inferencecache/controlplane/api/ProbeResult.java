package io.inferencecache.controlplane.api;

import java.util.List;

/**
 * A {@code /probe} response (docs/behaviour.md#probe): the outcome of each stage and the errors, in
 * stage order.
 *
 * @param backend the request's backend, echoed
 * @param ingest {@code ok}, {@code failed} or {@code skipped}; {@code null} is the zero value
 * @param routing as {@code ingest}
 * @param t2 as {@code ingest}
 * @param errors one entry per failed stage; empty → the key is omitted
 */
public record ProbeResult(
    String backend, String ingest, String routing, String t2, List<StageError> errors) {
  public static final String OK = "ok";
  public static final String FAILED = "failed";
  public static final String SKIPPED = "skipped";

  public ProbeResult {
    errors = errors == null ? List.of() : List.copyOf(errors);
  }

  /** One failed stage. */
  public record StageError(String stage, String message) {}

  /** Every stage {@code ok} or {@code skipped}; the zero value (no stage outcome) fails. */
  public boolean allPassed() {
    return passed(ingest) && passed(routing) && passed(t2);
  }

  private static boolean passed(final String stage) {
    return OK.equals(stage) || SKIPPED.equals(stage);
  }

  /** The JSON body, newline-terminated, keys in upstream order. */
  public String toJson() {
    final StringBuilder out = new StringBuilder(128).append("{\"backend\":");
    GoJson.string(out, backend == null ? "" : backend);
    out.append(",\"ingest\":");
    GoJson.string(out, ingest == null ? "" : ingest);
    out.append(",\"routing\":");
    GoJson.string(out, routing == null ? "" : routing);
    out.append(",\"t2\":");
    GoJson.string(out, t2 == null ? "" : t2);
    if (!errors.isEmpty()) {
      out.append(",\"errors\":[");
      for (int i = 0; i < errors.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        out.append("{\"stage\":");
        GoJson.string(out, errors.get(i).stage());
        out.append(",\"message\":");
        GoJson.string(out, errors.get(i).message());
        out.append('}');
      }
      out.append(']');
    }
    return out.append("}\n").toString();
  }
}
