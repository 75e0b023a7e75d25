package io.inferencecache.service.render;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.inferencecache.engine.LookupRouter;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.proto.v1alpha1.RenderTemplateRequest;
import io.inferencecache.proto.v1alpha1.RenderTemplateResponse;
import io.inferencecache.service.prompt.PromptTokenizer;
import io.inferencecache.templates.RenderResult;
import io.inferencecache.templates.TemplateRenderer;
import io.inferencecache.templates.TemplateRules;
import io.inferencecache.templates.TemplateStore;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RenderTemplate RPC (docs/behaviour.md#render-template), step by step:
 *
 * <ol>
 *   <li>The server holds no template at all → upstream's answer: {@code OK}, every other field
 *       empty (the caller hashes its raw prompt itself).
 *   <li>{@code template_ref} ({@code namespace/name}) not held → {@code TEMPLATE_NOT_FOUND}, the
 *       message naming the ref (cut to {@link TemplateRules#excerpt} when longer).
 *   <li>Render ({@link TemplateRenderer}): a broken rule → {@code RENDER_ERROR}, the message naming
 *       the slot (or variable) and the template.
 *   <li>{@code OK}: {@code rendered_prompt} (UTF-8), {@code template_revision}, {@code
 *       tenant_namespace} ({@link TenantKey}); the values of the Stable slots are counted in their
 *       sketches.
 *   <li>Stable prefix, when the model ({@code model_id}, else the template's {@code modelId}) has a
 *       tokenizer: the rendered prompt is tokenized exactly as LookupRoute's {@code prompt_text}
 *       (one user turn, the model's chat template, {@link PromptTokenizer}); the leading tokens
 *       lying wholly inside the stable prefix are cut to full engine blocks and fingerprinted as
 *       LookupRoute fingerprints {@code token_ids} ({@link Fingerprint}, the same block size):
 *       {@code stable_block_hashes} is that chain, {@code stable_prefix_hash} its last hash, {@code
 *       stable_prefix_token_count} the tokens it covers. By construction the chain is a prefix of
 *       the one LookupRoute computes for {@code prompt_text} = the rendered prompt. No model, no
 *       tokenizer, a saturated tokenizer (the same {@value LookupRouter#MAX_CONCURRENT_TOKENIZE}
 *       concurrent calls as LookupRoute's), a tokenizer error or less than one full block → the
 *       three fields stay empty, the answer stays {@code OK}, and {@code message} says why (except
 *       for "no model").
 * </ol>
 *
 * An unexpected fault is answered {@code RENDER_ERROR} with message {@code "internal error"} and
 * logged; never an RPC error. Thread-safe.
 */
public final class RenderTemplates {
  /** The three reason codes of RenderTemplate (upstream's). */
  public static final String OK = ReasonCodes.OK;

  public static final String TEMPLATE_NOT_FOUND = "TEMPLATE_NOT_FOUND";
  public static final String RENDER_ERROR = "RENDER_ERROR";

  private static final Logger LOG = LoggerFactory.getLogger(RenderTemplates.class);

  private final TemplateStore store;
  private final PromptTokenizer tokenizer;
  private final int blockSize;
  private final TenantKey tenantKey;
  private final RenderMetrics metrics;
  private final Semaphore tokenizePermits = new Semaphore(LookupRouter.MAX_CONCURRENT_TOKENIZE);

  /**
   * @param store the templates held (replaced whole by {@code /prompt-templates})
   * @param tokenizer LookupRoute's tokenizer ({@link PromptTokenizer#NONE}: no stable-prefix hash)
   * @param engineBlockSize the engine block size LookupRoute fingerprints with (non-positive:
   *     {@link LookupRouter#DEFAULT_ENGINE_BLOCK_SIZE})
   * @param tenantKey the {@code tenant_namespace} key ({@link TenantKey#NONE}: empty)
   * @param metrics one record per call
   */
  public RenderTemplates(
      final TemplateStore store,
      final PromptTokenizer tokenizer,
      final int engineBlockSize,
      final TenantKey tenantKey,
      final RenderMetrics metrics) {
    this.store = store;
    this.tokenizer = tokenizer;
    this.blockSize = engineBlockSize > 0 ? engineBlockSize : LookupRouter.DEFAULT_ENGINE_BLOCK_SIZE;
    this.tenantKey = tenantKey;
    this.metrics = metrics;
  }

  /** The templates this handler renders from. */
  public TemplateStore store() {
    return store;
  }

  /** Answers one call; never throws. */
  public RenderTemplateResponse answer(final RenderTemplateRequest request) {
    RenderTemplateResponse r;
    try {
      r = decide(request);
    } catch (RuntimeException e) {
      LOG.error(
          "event=render_template_internal_error ref={}",
          TemplateRules.excerpt(request.getTemplateRef()),
          e);
      r =
          RenderTemplateResponse.newBuilder()
              .setReasonCode(RENDER_ERROR)
              .setMessage("internal error")
              .build();
    }
    metrics.record(r.getReasonCode());
    return r;
  }

  private RenderTemplateResponse decide(final RenderTemplateRequest request) {
    final RenderTemplateResponse.Builder b = RenderTemplateResponse.newBuilder();
    // 1. no templates: upstream's answer
    if (store.isEmpty()) {
      return b.setReasonCode(OK).build();
    }
    // 2. the template
    final String ref = request.getTemplateRef();
    final TemplateStore.Entry entry = store.find(ref);
    if (entry == null) {
      return b.setReasonCode(TEMPLATE_NOT_FOUND)
          .setMessage(
              ref.isEmpty()
                  ? "template_ref is empty: name a template as namespace/name"
                  : "template \""
                      + TemplateRules.excerpt(ref)
                      + "\" is not held by this server (template_ref is namespace/name)")
          .build();
    }
    // 3. render
    final RenderResult result =
        TemplateRenderer.render(entry.template(), request.getVariablesMap());
    if (result instanceof RenderResult.Failure f) {
      return b.setReasonCode(RENDER_ERROR).setMessage(f.message()).build();
    }
    final RenderResult.Rendered rendered = (RenderResult.Rendered) result;
    // 4. OK
    entry.recordStableValues(request.getVariablesMap());
    b.setReasonCode(OK)
        .setRenderedPrompt(UnsafeByteOperations.unsafeWrap(rendered.utf8()))
        .setTemplateRevision(entry.template().revision());
    if (tenantKey.configured() && !request.getTenantId().isEmpty()) {
      b.setTenantNamespace(
          UnsafeByteOperations.unsafeWrap(tenantKey.namespace(request.getTenantId())));
    }
    // 5. stable prefix
    final String model =
        request.getModelId().isEmpty() ? entry.template().spec().modelId() : request.getModelId();
    if (!model.isEmpty()) {
      stablePrefix(b, model, rendered);
    }
    return b.build();
  }

  private void stablePrefix(
      final RenderTemplateResponse.Builder b,
      final String model,
      final RenderResult.Rendered rendered) {
    if (!tokenizer.supports(model)) {
      b.setMessage("no tokenizer for model \"" + model + "\": stable_prefix_hash left empty");
      return;
    }
    if (!tokenizePermits.tryAcquire()) {
      b.setMessage("tokenizer saturated: stable_prefix_hash left empty");
      return;
    }
    final PromptTokenizer.PrefixTokens tokens;
    try {
      tokens =
          tokenizer.encodeUserTurnPrefix(
              model,
              new String(rendered.utf8(), StandardCharsets.UTF_8),
              rendered.stablePrefixChars());
    } catch (Exception e) {
      b.setMessage("tokenizing for model \"" + model + "\" failed: stable_prefix_hash left empty");
      return;
    } finally {
      tokenizePermits.release();
    }
    if (tokens.ids().length > LookupRouter.MAX_LOOKUP_TOKENS) {
      b.setMessage(
          "the prompt is over "
              + LookupRouter.MAX_LOOKUP_TOKENS
              + " tokens: stable_prefix_hash left empty");
      return;
    }
    final int blocks = tokens.prefixTokens() / blockSize;
    if (blocks == 0) {
      b.setMessage(
          "the stable prefix is "
              + tokens.prefixTokens()
              + " tokens, less than one block of "
              + blockSize
              + ": stable_prefix_hash left empty");
      return;
    }
    final long[] chain =
        Fingerprint.prefixHashes(tokens.ids(), 0, blocks * blockSize, blockSize, false, 0L);
    ByteString last = ByteString.EMPTY;
    for (long h : chain) {
      last = UnsafeByteOperations.unsafeWrap(Fingerprint.toWire(h));
      b.addStableBlockHashes(last);
    }
    b.setStablePrefixHash(last).setStablePrefixTokenCount(blocks * blockSize);
  }
}
