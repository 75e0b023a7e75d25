package io.inferencecache.service.prompt;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.el.JinjavaProcessors;
import com.hubspot.jinjava.interpret.FatalTemplateErrorsException;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import com.hubspot.jinjava.tree.Node;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A model's Jinja chat template ({@code tokenizer_config.json} {@code chat_template}, supplied by
 * the operator), rendered through Jinjava for one {@code user} turn with the generation prompt.
 *
 * <p>The prompt text comes from a LookupRoute client and is <b>data only</b>: nested interpretation
 * is off, so Jinja syntax inside the prompt is copied verbatim, never evaluated. A render is
 * bounded whatever the template: at most {@link #MAX_OUTPUT_CHARS} characters of output and of any
 * string or list built on the way, at most {@link #MAX_NODE_RENDERS} template nodes rendered, at
 * most {@link #MAX_RENDER_NANOS} of wall time (checked at every node), {@code range()} at most
 * 1,000 items, no recursive macros, no {@code include}/{@code import}/{@code extends} (no resource
 * locator). Every failure — a template error Jinjava considers fatal, a bound exceeded, a
 * template's {@code raise_exception(...)}, a template nested too deeply for the parser's stack — is
 * a {@link ChatTemplateException}; the caller fails open.
 *
 * <p>Thread-safe and immutable; each render has its own context.
 */
public final class ChatTemplate {
  /** Upper bound of the rendered text and of any string or list built while rendering. */
  public static final int MAX_OUTPUT_CHARS = 4 << 20;

  /** Upper bound of template nodes rendered per call (a real chat template renders ~10–500). */
  public static final int MAX_NODE_RENDERS = 100_000;

  /** Upper bound of one render's wall time, checked before each node. */
  public static final long MAX_RENDER_NANOS = 1_000_000_000L;

  /** Per-render budget of the thread rendering (Jinjava renders on the caller's thread). */
  private static final ThreadLocal<Budget> BUDGET = new ThreadLocal<>();

  private static final Jinjava JINJA = newJinjava();

  private final String template;
  private final Map<String, Object> vars;

  private ChatTemplate(final String template, final Map<String, Object> vars) {
    this.template = template;
    this.vars = Map.copyOf(vars);
  }

  /**
   * A template, checked by rendering it once with a sample prompt.
   *
   * @param template the Jinja source
   * @param vars extra variables ({@code bos_token}, {@code eos_token}, …)
   * @throws ChatTemplateException when the sample render fails
   */
  public static ChatTemplate of(final String template, final Map<String, Object> vars)
      throws ChatTemplateException {
    final ChatTemplate t =
        new ChatTemplate(
            Objects.requireNonNull(template, "template"), Objects.requireNonNull(vars));
    t.render("hello");
    return t;
  }

  /**
   * Jinja's {@code raise_exception(msg)} used by chat templates: fails the render (Jinjava itself
   * would only record the exception as a non-fatal error and carry on rendering).
   */
  public static String raiseException(final String message) {
    final String failure = "chat template raised: " + message;
    final Budget b = BUDGET.get();
    if (b != null && b.exceeded == null) {
      b.exceeded = failure;
    }
    throw new IllegalArgumentException(failure);
  }

  /**
   * Renders {@code userText} as a single {@code user} message with {@code add_generation_prompt}.
   *
   * @throws ChatTemplateException when the template fails or exceeds a bound
   */
  public String render(final String userText) throws ChatTemplateException {
    final Map<String, Object> ctx = new HashMap<>(vars);
    ctx.put("messages", List.of(Map.of("role", "user", "content", userText)));
    ctx.put("add_generation_prompt", Boolean.TRUE);
    final Budget budget = new Budget(System.nanoTime() + MAX_RENDER_NANOS);
    BUDGET.set(budget);
    final String out;
    try {
      out = JINJA.render(template, ctx);
    } catch (FatalTemplateErrorsException e) {
      throw new ChatTemplateException(budget.exceeded != null ? budget.exceeded : describe(e), e);
    } catch (StackOverflowError e) {
      // Jinjava's parsers recurse per nesting level ("((((…" or "{% if %}" × ~800).
      throw new ChatTemplateException("chat template nested too deeply", e);
    } catch (RuntimeException e) {
      throw new ChatTemplateException("chat template failed: " + e, e);
    } finally {
      BUDGET.remove();
    }
    if (budget.exceeded != null) {
      throw new ChatTemplateException(budget.exceeded);
    }
    if (out == null || out.length() > MAX_OUTPUT_CHARS) {
      throw new ChatTemplateException("chat template output exceeds " + MAX_OUTPUT_CHARS);
    }
    return out;
  }

  private static String describe(final FatalTemplateErrorsException e) {
    return "chat template failed: " + e.getMessage();
  }

  /** One render's node count and deadline; {@code exceeded}: why it must fail, once it must. */
  private static final class Budget {
    final long deadline;
    int nodes;
    String exceeded;

    Budget(final long deadline) {
      this.deadline = deadline;
    }
  }

  /** Runs before every node: stops a render that has used up its node or time budget. */
  private static void checkBudget(final Node node, final JinjavaInterpreter interpreter) {
    final Budget b = BUDGET.get();
    if (b == null) {
      return;
    }
    if (b.exceeded == null) {
      if (++b.nodes > MAX_NODE_RENDERS) {
        b.exceeded = "chat template rendered more than " + MAX_NODE_RENDERS + " nodes";
      } else if (System.nanoTime() - b.deadline > 0) {
        b.exceeded = "chat template took longer than " + MAX_RENDER_NANOS / 1_000_000 + " ms";
      }
    }
    if (b.exceeded != null) {
      throw new BudgetExceeded(b.exceeded);
    }
  }

  /** Thrown out of the node pre-processor; Jinjava records it as a fatal template error. */
  private static final class BudgetExceeded extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BudgetExceeded(final String message) {
      super(message, null, false, false);
    }
  }

  private static Jinjava newJinjava() {
    final Jinjava j =
        new Jinjava(
            JinjavaConfig.newBuilder()
                .withFailOnUnknownTokens(false)
                .withNestedInterpretationEnabled(false)
                .withMaxOutputSize(MAX_OUTPUT_CHARS)
                .withMaxStringLength(MAX_OUTPUT_CHARS)
                .withMaxListSize(MAX_OUTPUT_CHARS)
                .withMaxMapSize(MAX_OUTPUT_CHARS)
                .withRangeLimit(1_000)
                .withEnableRecursiveMacroCalls(false)
                .withProcessors(
                    JinjavaProcessors.newBuilder()
                        .withNodePreProcessor(ChatTemplate::checkBudget)
                        .build())
                .build());
    j.setResourceLocator(
        (name, charset, interpreter) -> {
          throw new IOException("chat templates cannot load other templates: " + name);
        });
    j.getGlobalContext()
        .registerFunction(
            new ELFunctionDefinition(
                "", "raise_exception", ChatTemplate.class, "raiseException", String.class));
    return j;
  }
}
