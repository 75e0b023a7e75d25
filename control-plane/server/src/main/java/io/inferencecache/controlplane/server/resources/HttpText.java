package io.inferencecache.controlplane.server.resources;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Response and request-body helpers shared by the endpoints (Go {@code net/http} conventions). */
final class HttpText {
  static final String TEXT_PLAIN = "text/plain; charset=utf-8";

  private HttpText() {}

  /** Go's {@code http.Error}: text/plain, nosniff, the message and a newline. */
  static void error(final HttpServletResponse resp, final int status, final String message)
      throws IOException {
    resp.setStatus(status);
    resp.setHeader("Content-Type", TEXT_PLAIN);
    resp.setHeader("X-Content-Type-Options", "nosniff");
    write(resp, message + "\n");
  }

  /** A 200 text/plain body. */
  static void text(final HttpServletResponse resp, final String body) throws IOException {
    resp.setStatus(HttpServletResponse.SC_OK);
    resp.setHeader("Content-Type", TEXT_PLAIN);
    write(resp, body);
  }

  /** A 200 {@code application/json} body. */
  static void json(final HttpServletResponse resp, final String body) throws IOException {
    resp.setStatus(HttpServletResponse.SC_OK);
    resp.setHeader("Content-Type", "application/json");
    write(resp, body);
  }

  /**
   * Answers a GET or HEAD of a held JSON document ({@code /policy}, {@code /prompt-templates},
   * {@code /pd-topologies}): 200, {@code application/json}, its length, and the body for GET only.
   * Returns false, answering nothing, for any other method; {@code json} is only encoded for GET
   * and HEAD, so a push never pays for reading back the set it replaces.
   */
  static boolean heldJson(
      final HttpServletRequest req,
      final HttpServletResponse resp,
      final java.util.function.Supplier<String> json)
      throws IOException {
    final String method = req.getMethod();
    if (!"GET".equals(method) && !"HEAD".equals(method)) {
      return false;
    }
    final byte[] held = json.get().getBytes(StandardCharsets.UTF_8);
    resp.setStatus(HttpServletResponse.SC_OK);
    resp.setContentType("application/json");
    resp.setContentLength(held.length);
    if ("GET".equals(method)) {
      resp.getOutputStream().write(held);
    }
    return true;
  }

  /**
   * The common part of an endpoint whose POST/PUT replaces a whole set and whose GET/HEAD reads it
   * back ({@code /pd-topologies}): answers GET and HEAD with {@code held} ({@link #heldJson}), then
   * as {@link #replaceBody} with the message {@code decode <what>: http: request body too large};
   * returns the body to decode, or {@code null} when answered.
   */
  static Body replaceWhole(
      final HttpServletRequest req,
      final HttpServletResponse resp,
      final java.util.function.Supplier<String> held,
      final String what,
      final int limit)
      throws IOException {
    if (heldJson(req, resp, held)) {
      return null;
    }
    return replaceBody(req, resp, limit, "decode " + what + ": http: request body too large");
  }

  /**
   * The body of a replace-on-write (POST or PUT, at most {@code limit} bytes); {@code null} once
   * answered: 405 (allowing GET, HEAD, POST, PUT) for another method, 400 {@code tooLarge} over the
   * limit.
   */
  static Body replaceBody(
      final HttpServletRequest req,
      final HttpServletResponse resp,
      final int limit,
      final String tooLarge)
      throws IOException {
    final String method = req.getMethod();
    if (!"POST".equals(method) && !"PUT".equals(method)) {
      methodNotAllowed(resp, "GET, HEAD, POST, PUT");
      return null;
    }
    final Body body = read(req, limit);
    if (body.tooLarge()) {
      error(resp, HttpServletResponse.SC_BAD_REQUEST, tooLarge);
      return null;
    }
    return body;
  }

  /** 405 with {@code Allow}. */
  static void methodNotAllowed(final HttpServletResponse resp, final String allow)
      throws IOException {
    resp.setHeader("Allow", allow);
    error(resp, HttpServletResponse.SC_METHOD_NOT_ALLOWED, "method not allowed");
  }

  static void write(final HttpServletResponse resp, final String body) throws IOException {
    final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    resp.setContentLength(bytes.length);
    resp.getOutputStream().write(bytes);
  }

  /** A request body read up to a limit. */
  record Body(byte[] bytes, int length, boolean tooLarge) {}

  /** Reads at most {@code limit} bytes; more is {@link Body#tooLarge()} (Go's MaxBytesReader). */
  static Body read(final HttpServletRequest req, final int limit) throws IOException {
    final long declared = req.getContentLengthLong();
    if (declared > limit) {
      return new Body(new byte[0], 0, true);
    }
    byte[] buf = new byte[(int) Math.min(Math.max(declared, 512), limit + 1L)];
    int n = 0;
    try (InputStream in = req.getInputStream()) {
      while (true) {
        if (n == buf.length) {
          if (buf.length > limit) {
            return new Body(new byte[0], 0, true);
          }
          buf = Arrays.copyOf(buf, (int) Math.min(buf.length * 2L, limit + 1L));
        }
        final int r = in.read(buf, n, buf.length - n);
        if (r < 0) {
          break;
        }
        n += r;
        if (n > limit) {
          return new Body(new byte[0], 0, true);
        }
      }
    }
    return new Body(buf, n, false);
  }
}
