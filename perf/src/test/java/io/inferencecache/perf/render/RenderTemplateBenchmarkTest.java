package io.inferencecache.perf.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.templates.RenderResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Smoke test of {@link RenderTemplateBenchmark}: the three paths answer the same 2 KiB prompt. */
@Timeout(60)
class RenderTemplateBenchmarkTest {
  @Test
  void theThreePathsRenderTheSamePrompt() throws Exception {
    final RenderTemplateBenchmark b = new RenderTemplateBenchmark();
    b.setUp(); // checks the RPC's answer: OK with RENDERED_BYTES
    try {
      final RenderResult.Rendered r = (RenderResult.Rendered) b.renderer();
      assertThat(r.utf8()).hasSize(RenderTemplateBenchmark.RENDERED_BYTES);
      assertThat(b.handler().getRenderedPrompt().toByteArray()).isEqualTo(r.utf8());
      assertThat(b.inProcessRpc().getRenderedPrompt().toByteArray()).isEqualTo(r.utf8());
      assertThat(b.handler().getTenantNamespace().size()).isEqualTo(32);
    } finally {
      b.tearDown();
    }
  }
}
