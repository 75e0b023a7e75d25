package io.inferencecache.service.lookup;

import io.inferencecache.service.prompt.PromptTokenizer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link PromptTokenizer} whose answer is set by the test and which records every request (the
 * model and the single user turn it was asked to encode).
 */
public final class FakePromptTokenizer implements PromptTokenizer {
  /** One {@link #encodeUserTurn} call. */
  public record Request(String model, String text) {}

  /** What an encode call does. */
  @FunctionalInterface
  public interface Behaviour {
    int[] encode(String model, String text) throws Exception;
  }

  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private volatile Behaviour behaviour =
      (m, t) -> {
        throw new IllegalStateException("no behaviour configured");
      };
  private volatile boolean supported = true;

  /** Answers {@code tokens} (a copy each time). */
  public FakePromptTokenizer returning(final int[] tokens) {
    this.behaviour = (m, t) -> tokens.clone();
    return this;
  }

  public FakePromptTokenizer behaviour(final Behaviour b) {
    this.behaviour = b;
    return this;
  }

  /** Whether {@link #supports} answers true (a "loaded" tokenizer). */
  public FakePromptTokenizer supported(final boolean s) {
    this.supported = s;
    return this;
  }

  public List<Request> requests() {
    return List.copyOf(requests);
  }

  @Override
  public boolean supports(final String modelId) {
    return supported;
  }

  @Override
  public int[] encodeUserTurn(final String modelId, final String text) throws Exception {
    requests.add(new Request(modelId, text));
    return behaviour.encode(modelId, text);
  }
}
