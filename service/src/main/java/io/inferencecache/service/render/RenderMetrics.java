package io.inferencecache.service.render;

/** Where RenderTemplate reports each call (one record per call). */
@FunctionalInterface
public interface RenderMetrics {
  /** Records one answer by its reason code ({@code OK}, {@code TEMPLATE_NOT_FOUND}, …). */
  void record(String reasonCode);

  RenderMetrics NOOP = reasonCode -> {};
}
