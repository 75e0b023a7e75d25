package io.inferencecache.engine.pd;

/**
 * The KV transfer bandwidth of each link class, in GB/s (10⁹ bytes per second): between two
 * replicas on the same node, on two nodes whose accelerators have the same vendor, and any other
 * pair. Every value is finite and &gt; 0.
 */
public record PdLinks(double sameNodeGBps, double sameVendorGBps, double crossGBps) {
  /** Same node default: 300 GB/s (an NVLink/xGMI class fabric). */
  public static final double SAME_NODE_GBPS_DEFAULT = 300;

  /** Same vendor default: 50 GB/s (a 400 Gb/s RDMA network). */
  public static final double SAME_VENDOR_GBPS_DEFAULT = 50;

  /** Cross default: 10 GB/s (a 100 Gb/s TCP path through host memory). */
  public static final double CROSS_GBPS_DEFAULT = 10;

  /** Every class at its default. */
  public static final PdLinks DEFAULTS =
      new PdLinks(SAME_NODE_GBPS_DEFAULT, SAME_VENDOR_GBPS_DEFAULT, CROSS_GBPS_DEFAULT);

  public PdLinks {
    check("sameNodeGBps", sameNodeGBps);
    check("sameVendorGBps", sameVendorGBps);
    check("crossGBps", crossGBps);
  }

  private static void check(final String field, final double v) {
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(field + " must be a finite number > 0, got " + v);
    }
  }
}
