package io.inferencecache.engine.pd;

import java.util.Objects;

/**
 * A kind of accelerator a pool runs on. Two pools whose types name the same non-empty {@code
 * vendor} move KV over the same-vendor link class ({@link PdLinks#sameVendorGBps()}).
 *
 * @param name the name pools refer to ({@link PdPool#acceleratorType()}); non-empty
 * @param vendor e.g. {@code nvidia}; {@code null} → empty (unknown: never the same vendor)
 * @param model e.g. {@code H100-80GB}; descriptive only; {@code null} → empty
 */
public record AcceleratorType(String name, String vendor, String model) {
  public AcceleratorType {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    vendor = vendor == null ? "" : vendor;
    model = model == null ? "" : model;
  }
}
