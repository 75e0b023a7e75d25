package io.inferencecache.service.server;

import java.util.Objects;

/**
 * A parsed listener address, {@code host:port} (the gRPC, HTTP, metrics and webhook listeners). An
 * empty host means every interface; the host is otherwise a name, an IPv4 literal or an IPv6
 * literal (given in brackets, stored without).
 */
public record BindAddress(String host, int port) {
  /** Validates the parts; use {@link #parse(String, String)} for text. */
  public BindAddress {
    Objects.requireNonNull(host, "host");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range 0..65535: " + port);
    }
  }

  /** True when the host is empty: bind every interface. */
  public boolean wildcard() {
    return host.isEmpty();
  }

  /**
   * Parses {@code host:port}, {@code :port} or {@code [ipv6]:port} (Go's {@code net.SplitHostPort}
   * forms with a numeric port 0–65535).
   *
   * @param setting name of the setting being parsed, named in the error message
   * @param text the value
   * @throws IllegalArgumentException naming {@code setting} and the value, and what is wrong
   */
  public static BindAddress parse(final String setting, final String text) {
    Objects.requireNonNull(setting, "setting");
    if (text == null || text.isEmpty()) {
      throw invalid(setting, text, "empty; expected host:port or :port");
    }
    for (int i = 0; i < text.length(); i++) {
      final char c = text.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        throw invalid(setting, text, "contains whitespace or control characters");
      }
    }
    final String host;
    final String portText;
    if (text.charAt(0) == '[') {
      final int close = text.indexOf(']');
      if (close < 0) {
        throw invalid(setting, text, "missing ']' in IPv6 address");
      }
      if (close + 1 >= text.length() || text.charAt(close + 1) != ':') {
        throw invalid(setting, text, "missing port; expected [ipv6]:port");
      }
      host = text.substring(1, close);
      if (host.isEmpty() || host.indexOf(':') < 0) {
        throw invalid(setting, text, "brackets must enclose an IPv6 address");
      }
      if (host.indexOf('[') >= 0 || host.indexOf(']') >= 0) {
        throw invalid(setting, text, "unexpected bracket in host");
      }
      portText = text.substring(close + 2);
    } else {
      final int colon = text.lastIndexOf(':');
      if (colon < 0) {
        throw invalid(setting, text, "missing port; expected host:port or :port");
      }
      host = text.substring(0, colon);
      if (host.indexOf(':') >= 0) {
        throw invalid(setting, text, "too many colons; write an IPv6 address as [ipv6]:port");
      }
      if (host.indexOf('[') >= 0 || host.indexOf(']') >= 0) {
        throw invalid(setting, text, "unexpected bracket in host");
      }
      portText = text.substring(colon + 1);
    }
    return new BindAddress(host, parsePort(setting, text, portText));
  }

  private static int parsePort(final String setting, final String text, final String portText) {
    if (portText.isEmpty()) {
      throw invalid(setting, text, "missing port; expected host:port or :port");
    }
    if (portText.length() > 5) {
      throw invalid(setting, text, "port must be a number 0..65535");
    }
    int port = 0;
    for (int i = 0; i < portText.length(); i++) {
      final char c = portText.charAt(i);
      if (c < '0' || c > '9') {
        throw invalid(setting, text, "port must be a number 0..65535");
      }
      port = port * 10 + (c - '0');
    }
    if (port > 65535) {
      throw invalid(setting, text, "port must be a number 0..65535");
    }
    return port;
  }

  private static IllegalArgumentException invalid(
      final String setting, final String text, final String why) {
    return new IllegalArgumentException(
        setting + ": invalid address \"" + (text == null ? "" : text) + "\": " + why);
  }

  /** {@code host:port}, with IPv6 hosts in brackets; {@code :port} for every interface. */
  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
