package io.inferencecache.controlplane.server.resources;

import io.inferencecache.controlplane.api.JsonDecodeException;
import io.inferencecache.controlplane.api.PromptTemplateJson;
import io.inferencecache.templates.PromptTemplate;
import io.inferencecache.templates.TemplateStore;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;

/**
 * {@code /prompt-templates} (docs/server.md): POST or PUT replace every template the server renders
 * from (body ≤ 1 MiB, {@link PromptTemplateJson}, strict, 400 naming the field), 204; GET and HEAD
 * read back what the server holds, each template with its revision. Same listener and
 * authentication as {@code /policy}; held in memory only (the controller pushes again on every
 * change and every push interval).
 */
public final class PromptTemplateEndpoint implements Endpoint {
  /**
   * Body limit: a cluster's whole set in one body (up to 64 Ki characters a template, escaped), so
   * well above {@code /policy}'s 1 MiB; a push over it is refused whole and the controller records
   * the refusal as a PushFailed event.
   */
  public static final int MAX_BODY_BYTES = 32 << 20;

  private final TemplateStore store;
  private final Runnable replaced;

  /**
   * @param store the templates RenderTemplate renders from
   * @param replaced run after each replacement (the metric gauges follow the held set)
   */
  public PromptTemplateEndpoint(final TemplateStore store, final Runnable replaced) {
    this.store = store;
    this.replaced = replaced;
  }

  @Override
  public void handle(final HttpServletRequest req, final HttpServletResponse resp)
      throws IOException {
    if (HttpText.heldJson(req, resp, () -> PromptTemplateJson.write(store.templates()))) {
      return;
    }
    final HttpText.Body body =
        HttpText.replaceBody(
            req,
            resp,
            MAX_BODY_BYTES,
            "decode prompt templates: request body over " + MAX_BODY_BYTES + " bytes");
    if (body == null) {
      return;
    }
    final List<PromptTemplate> templates;
    try {
      templates = PromptTemplateJson.decode(body.bytes(), body.length());
    } catch (JsonDecodeException e) {
      HttpText.error(
          resp, HttpServletResponse.SC_BAD_REQUEST, "decode prompt templates: " + e.getMessage());
      return;
    }
    store.replace(templates);
    replaced.run();
    resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
  }
}
