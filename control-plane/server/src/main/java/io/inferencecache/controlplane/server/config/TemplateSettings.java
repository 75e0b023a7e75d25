package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;

/**
 * RenderTemplate (docs/behaviour.md#render-template): {@code templates.tenantKeyFile}, flag {@code
 * --tenant-key-file}, the file holding the secret of {@code tenant_namespace} (HMAC-SHA256 of the
 * tenant id; at least 16 bytes, trailing newlines dropped). Empty: no key, {@code tenant_namespace}
 * stays empty.
 */
public final class TemplateSettings {
  @NotNull private String tenantKeyFile = "";

  @JsonProperty
  public String getTenantKeyFile() {
    return tenantKeyFile;
  }

  @JsonProperty
  public void setTenantKeyFile(final String v) {
    this.tenantKeyFile = v;
  }
}
