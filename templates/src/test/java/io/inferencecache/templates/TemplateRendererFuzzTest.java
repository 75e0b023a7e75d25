package io.inferencecache.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuzzes the whole template path: a spec (body and slots) through {@link TemplateRules} and {@link
 * PromptTemplate#compile}, then {@link TemplateRenderer#render} with fuzzed variables. Whatever the
 * input: the rules answer a list (never throw); compile succeeds exactly when the rules found
 * nothing; render answers {@link RenderResult.Rendered} or {@link RenderResult.Failure} (never
 * throws); a rendered prompt is at most {@link TemplateRules#MAX_RENDERED_BYTES}, equals the
 * reference rendering (a plain string replace of each placeholder with its value, values never
 * rescanned), and its stable-prefix offsets point at the same place in bytes and characters.
 *
 * <p>Regression mode (CI) replays {@code TemplateRendererFuzzTestInputs/}; fuzz with {@code
 * JAZZER_FUZZ=1} (docs/reliability.md).
 */
class TemplateRendererFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void renderAnything(final FuzzedDataProvider data) {
    final int slotCount = data.consumeInt(0, 5);
    final List<Slot> slots = new ArrayList<>();
    for (int i = 0; i < slotCount; i++) {
      final String name =
          data.consumeBoolean() ? "s" + data.consumeInt(0, 6) : data.consumeString(8);
      final SlotType type =
          data.pickValue(new SlotType[] {SlotType.STABLE, SlotType.MUTABLE, null});
      slots.add(new Slot(name, type, data.consumeBoolean()));
    }
    final String body = data.consumeString(400);
    final PromptTemplateSpec spec = new PromptTemplateSpec("", body, slots);
    final List<TemplateViolation> v = TemplateRules.validate(spec);
    final PromptTemplate t;
    try {
      t = PromptTemplate.compile("ns", "t", spec);
    } catch (InvalidTemplateException e) {
      assertThat(v).isNotEmpty();
      return;
    }
    assertThat(v).isEmpty();
    final Map<String, String> vars = new HashMap<>();
    final int varCount = data.consumeInt(0, 6);
    for (int i = 0; i < varCount; i++) {
      final String key =
          data.consumeBoolean() ? "s" + data.consumeInt(0, 6) : data.consumeString(8);
      vars.put(key, data.consumeString(200));
    }
    final RenderResult r = TemplateRenderer.render(t, vars);
    if (r instanceof RenderResult.Failure f) {
      assertThat(f.message()).contains("ns/t");
      return;
    }
    final RenderResult.Rendered ok = (RenderResult.Rendered) r;
    assertThat(ok.utf8().length).isLessThanOrEqualTo(TemplateRules.MAX_RENDERED_BYTES);
    final String got = new String(ok.utf8(), StandardCharsets.UTF_8);
    assertThat(got).isEqualTo(reference(t, vars));
    assertThat(ok.chars()).isEqualTo(got.length());
    assertThat(got.substring(0, ok.stablePrefixChars()).getBytes(StandardCharsets.UTF_8).length)
        .isEqualTo(ok.stablePrefixBytes());
  }

  /** The naive rendering: scan once, replace each placeholder with its value. */
  private static String reference(final PromptTemplate t, final Map<String, String> vars) {
    final String body = t.spec().body();
    final StringBuilder sb = new StringBuilder();
    int from = 0;
    for (BodyScanner.Placeholder p : BodyScanner.scan(body).placeholders()) {
      sb.append(body, from, p.start()).append(vars.getOrDefault(p.name(), ""));
      from = p.end();
    }
    // round-trip through UTF-8 as the renderer's output does (unpaired surrogates become '?')
    return new String(
        sb.append(body.substring(from)).toString().getBytes(StandardCharsets.UTF_8),
        StandardCharsets.UTF_8);
  }
}
