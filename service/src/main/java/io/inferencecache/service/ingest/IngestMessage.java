package io.inferencecache.service.ingest;

import com.google.common.base.Utf8;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.MethodDescriptor;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.service.wire.WireReader;
import java.io.IOException;
import java.io.InputStream;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One message of a ReportCacheState stream: the parsed update, or — when the bytes are not a valid
 * CacheStateUpdate — a description naming what is wrong, so the call can be answered
 * INVALID_ARGUMENT (the updates accepted before it stay ingested).
 */
record IngestMessage(CacheStateUpdate update, String error) {

  /**
   * Marshaller that never fails a parse: bad bytes become an {@link IngestMessage} with an error.
   */
  static final class Marshaller implements MethodDescriptor.Marshaller<IngestMessage> {
    @Override
    public InputStream stream(final IngestMessage value) {
      return value.update().toByteString().newInput();
    }

    @Override
    public IngestMessage parse(final InputStream stream) {
      final byte[] bytes;
      try {
        bytes = stream.readAllBytes();
      } catch (IOException e) {
        return new IngestMessage(null, "CacheStateUpdate could not be read: " + e.getMessage());
      }
      try {
        return new IngestMessage(CacheStateUpdate.parseFrom(bytes), null);
      } catch (InvalidProtocolBufferException e) {
        final String field = invalidUtf8Field(bytes);
        return new IngestMessage(
            null,
            field != null
                ? "CacheStateUpdate." + field + " is not valid UTF-8"
                : "malformed CacheStateUpdate: " + e.getMessage());
      }
    }
  }

  /** The path of the first string field holding invalid UTF-8, or null. */
  static String invalidUtf8Field(final byte[] bytes) {
    final UnsafeBuffer b = new UnsafeBuffer(bytes);
    final WireReader r = new WireReader().wrap(b, 0, bytes.length);
    int prefix = 0;
    int tag;
    while ((tag = r.tag()) != 0) {
      final int field = tag >>> 3;
      final int wt = tag & 7;
      if (wt != WireReader.LEN) {
        r.skip(wt);
        continue;
      }
      final int n = r.length();
      if (!r.ok()) {
        return null;
      }
      final int at = r.position();
      r.advance(n);
      switch (field) {
        case 1, 2, 3, 4, 8 -> {
          if (!Utf8.isWellFormed(bytes, at, n)) {
            return switch (field) {
              case 1 -> "replica_id";
              case 2 -> "model_id";
              case 3 -> "tenant_id";
              case 4 -> "hash_scheme";
              default -> "adapter_id";
            };
          }
        }
        case 6 -> {
          final String f = nestedInvalid(bytes, at, n, 6);
          if (f != null) {
            return "prefixes[" + prefix + "]." + f;
          }
          prefix++;
        }
        case 7 -> {
          final String f = nestedInvalid(bytes, at, n, -1);
          if (f != null) {
            return "stats." + f;
          }
        }
        default -> {}
      }
    }
    return null;
  }

  /** Checks the string fields of a PrefixEntry (adapter_id = 6) or ReplicaStats (1, 5). */
  private static String nestedInvalid(
      final byte[] bytes, final int offset, final int length, final int entryStringField) {
    final WireReader r = new WireReader().wrap(new UnsafeBuffer(bytes), offset, length);
    int tag;
    while ((tag = r.tag()) != 0) {
      final int field = tag >>> 3;
      final int wt = tag & 7;
      if (wt != WireReader.LEN) {
        r.skip(wt);
        continue;
      }
      final int n = r.length();
      if (!r.ok()) {
        return null;
      }
      final int at = r.position();
      r.advance(n);
      final boolean isString =
          entryStringField > 0 ? field == entryStringField : (field == 1 || field == 5);
      if (isString && !Utf8.isWellFormed(bytes, at, n)) {
        if (entryStringField > 0) {
          return "adapter_id";
        }
        return field == 1 ? "replica_id" : "client_version";
      }
    }
    return null;
  }
}
