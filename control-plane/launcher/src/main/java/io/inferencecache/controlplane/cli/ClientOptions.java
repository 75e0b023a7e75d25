package io.inferencecache.controlplane.cli;

import com.google.protobuf.ByteString;
import io.inferencecache.configtext.GoDuration;
import io.inferencecache.controlplane.client.ChainArgs;
import io.inferencecache.controlplane.client.ClientConnection;
import java.io.File;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The flags {@code client report} and {@code client lookup} share: where the server is, the scope
 * (tenant, model, hash scheme, adapter) and the chain (block hashes with their token counts, or
 * token ids). The checks throw {@link IllegalArgumentException} with a message naming the flag.
 */
final class ClientOptions {
  static final String PROBE_TENANT = "inferencecache.io/probe";
  static final int TOKENS_PER_BLOCK_DEFAULT = 16;

  @Option(
      names = "--address",
      paramLabel = "HOST:PORT",
      description = "Server gRPC address (default ${DEFAULT-VALUE}).")
  String address = "127.0.0.1:9090";

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      description =
          "Bound of each call, connecting included, Go duration (default ${DEFAULT-VALUE}).")
  String timeout = "10s";

  @Option(names = "--tls", description = "Speak TLS, trusting the JVM's CA certificates.")
  boolean tls;

  @Option(
      names = "--ca-file",
      paramLabel = "FILE",
      description = "Speak TLS, trusting the PEM certificates in FILE (e.g. the server's tls.crt).")
  File caFile;

  @Option(
      names = "--tenant",
      required = true,
      paramLabel = "ID",
      description = "Tenant (in a cluster: the engine pod's namespace).")
  String tenant;

  @Option(names = "--model", required = true, paramLabel = "ID", description = "Model id.")
  String model;

  @Option(
      names = "--hash-scheme",
      paramLabel = "SCHEME",
      description =
          "Hash scheme, compared as a plain string: vllm, sglang, ... (default ${DEFAULT-VALUE}).")
  String hashScheme = "vllm";

  @Option(
      names = "--adapter",
      paramLabel = "ID",
      description = "LoRA adapter partition (default: the base model's).")
  String adapter = "";

  @Option(
      names = "--blocks",
      paramLabel = "H1,H2,...",
      description =
          "Block-hash chain, first block first: decimal or 0x-hex uint64s (8 bytes big-endian on"
              + " the wire); 0x-hex of more than 16 digits is sent as raw bytes.")
  String blocks;

  @Option(
      names = "--tokens-per-block",
      paramLabel = "N",
      description =
          "Tokens per block of --blocks, and the block size report cuts --token-ids into"
              + " (default 16).")
  Integer tokensPerBlock;

  @Option(
      names = "--block-tokens",
      paramLabel = "N1,N2,...",
      description = "Per-block token counts of --blocks instead of --tokens-per-block.")
  String blockTokens;

  /** The timeout, positive. */
  Duration timeout() {
    return positiveDuration("--timeout", timeout, "10s or 500ms");
  }

  /** {@code text} as a positive Go duration; the message names {@code flag} and an example. */
  static Duration positiveDuration(final String flag, final String text, final String example) {
    final Duration d;
    try {
      d = GoDuration.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(flag + ": " + e.getMessage() + ", e.g. " + example);
    }
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(flag + " " + text + " must be positive");
    }
    return d;
  }

  /** Checks the scope flags: each non-blank, the tenant not the reserved probe tenant. */
  void checkScope() {
    nonBlank("--tenant", tenant);
    nonBlank("--model", model);
    nonBlank("--hash-scheme", hashScheme);
    if (PROBE_TENANT.equals(tenant)) {
      throw new IllegalArgumentException(
          "--tenant " + PROBE_TENANT + " is reserved for the server's /probe: use another tenant");
    }
  }

  /** The hashes of {@code --blocks}, or null when it is not given. */
  List<ByteString> blockHashes() {
    return blocks == null ? null : ChainArgs.blockHashes("--blocks", blocks);
  }

  /** The per-block token counts of a chain of {@code n} blocks. */
  List<Integer> blockTokenCounts(final int n) {
    return ChainArgs.countsFor(
        n,
        blockTokens == null ? null : ChainArgs.tokenCounts("--block-tokens", blockTokens),
        tokensPerBlock());
  }

  int tokensPerBlock() {
    return tokensPerBlock == null ? TOKENS_PER_BLOCK_DEFAULT : tokensPerBlock;
  }

  /** A channel to the server (TLS with {@code --tls} or {@code --ca-file}). */
  ClientConnection connection() {
    return ClientConnection.open(address, timeout(), tls || caFile != null, caFile);
  }

  static void nonBlank(final String flag, final String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(flag + " must not be empty");
    }
  }
}
