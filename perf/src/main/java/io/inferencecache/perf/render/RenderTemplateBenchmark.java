package io.inferencecache.perf.render;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.RenderTemplateRequest;
import io.inferencecache.proto.v1alpha1.RenderTemplateResponse;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.prompt.PromptTokenizer;
import io.inferencecache.service.render.RenderMetrics;
import io.inferencecache.service.render.RenderTemplates;
import io.inferencecache.service.render.TenantKey;
import io.inferencecache.service.server.InferenceCacheService;
import io.inferencecache.templates.PromptTemplate;
import io.inferencecache.templates.PromptTemplateSpec;
import io.inferencecache.templates.RenderResult;
import io.inferencecache.templates.Slot;
import io.inferencecache.templates.SlotType;
import io.inferencecache.templates.TemplateRenderer;
import io.inferencecache.templates.TemplateStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * RenderTemplate of a 2 KiB template (a 2,041-character body: 2,000 characters of literal system
 * text, a Stable slot given 256 characters, a Mutable question of 64: 2,337 bytes rendered), in the
 * same run:
 *
 * <ul>
 *   <li>{@link #renderer}: {@link TemplateRenderer#render} alone (the variables map prebuilt).
 *   <li>{@link #handler}: {@link RenderTemplates#answer} on a prebuilt request (store lookup,
 *       render, revision, keyed tenant namespace, sketch update, response built; no tokenizer).
 *   <li>{@link #inProcessRpc}: the whole RPC through grpc's in-process transport to {@link
 *       InferenceCacheService} (request and response marshalled, a direct executor).
 * </ul>
 *
 * Sample mode (p50/p99 in the JSON); run with {@code -prof gc} for {@code gc.alloc.rate.norm}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgs = {"-Xms512m", "-Xmx512m"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
@State(Scope.Thread)
public class RenderTemplateBenchmark {
  /** The template body: 2,000 literal characters, a Stable slot, a Mutable slot. */
  static final String BODY =
      "You are the support assistant of the inference cache. ".repeat(38).substring(0, 2000)
          + "\nPolicy: {{.policy}}\n\nUser: {{.question}}";

  /** The rendered prompt's size. */
  static final int RENDERED_BYTES = 2337;

  private final Map<String, String> vars =
      Map.of(
          "policy",
          "p".repeat(256),
          "question",
          "Why is my cache hit rate low today? ".repeat(2).substring(0, 64));

  private PromptTemplate template;
  private RenderTemplates handler;
  private RenderTemplateRequest request;
  private CacheIndex index;
  private Server server;
  private ManagedChannel channel;
  private InferenceCacheGrpc.InferenceCacheBlockingStub stub;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    template =
        PromptTemplate.compile(
            "team-a",
            "support",
            new PromptTemplateSpec(
                "",
                BODY,
                List.of(
                    new Slot("policy", SlotType.STABLE, true),
                    new Slot("question", SlotType.MUTABLE, true))));
    final TemplateStore store = new TemplateStore();
    store.replace(List.of(template));
    handler =
        new RenderTemplates(
            store,
            PromptTokenizer.NONE,
            16,
            TenantKey.of("a-benchmark-key-of-32-bytes-long".getBytes(StandardCharsets.UTF_8)),
            RenderMetrics.NOOP);
    request =
        RenderTemplateRequest.newBuilder()
            .setTemplateRef("team-a/support")
            .setTenantId("tenant-1")
            .putAllVariables(vars)
            .build();
    index = CacheIndex.open(new IndexConfig().maxEntries(1_000));
    index.start();
    final InferenceCacheService service =
        new InferenceCacheService(
            index,
            new LookupRouteHandler(
                index, PromptTokenizer.NONE, 16, LookupMetrics.NOOP, System::nanoTime),
            LookupMetrics.NOOP,
            System::nanoTime,
            null);
    service.renderTemplates(handler);
    final String name = "render-bench-" + System.nanoTime();
    server =
        InProcessServerBuilder.forName(name)
            .directExecutor()
            .addService(service.definition(true))
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    stub = InferenceCacheGrpc.newBlockingStub(channel);
    final RenderTemplateResponse check = stub.renderTemplate(request);
    if (!"OK".equals(check.getReasonCode()) || check.getRenderedPrompt().size() != RENDERED_BYTES) {
      throw new IllegalStateException(
          "unexpected answer " + check.getReasonCode() + " " + check.getRenderedPrompt().size());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    index.close();
  }

  @Benchmark
  public RenderResult renderer() {
    return TemplateRenderer.render(template, vars);
  }

  @Benchmark
  public RenderTemplateResponse handler() {
    return handler.answer(request);
  }

  @Benchmark
  public RenderTemplateResponse inProcessRpc() {
    return stub.renderTemplate(request);
  }
}
