package io.inferencecache.engine.internal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.hash.serialization.SizedReader;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.hash.serialization.impl.EnumMarshallable;

/**
 * The prefix map's value reader (engine/docs/design.md §4, "Reading a run in place"). Chronicle
 * calls it inside {@code getUsing}, under the entry's segment read lock, with the value's bytes in
 * front of it. Given {@link #IN_PLACE} as the value to reuse, it copies nothing: it hands the
 * value's address to the {@link RunCursor} the calling thread {@linkplain #bind bound}, which reads
 * the run there and then, before the lock is released. Any other call reads a {@code byte[]} as
 * Chronicle's own reader does.
 *
 * <p>Chronicle records this class's name in a persisted file's header, so it keeps its name and
 * package; a file created before it existed keeps Chronicle's reader, and {@link RunStore} then
 * reads runs through a query context instead ({@link RunStore#readsInPlace()}).
 */
public final class RunValueReader implements SizedReader<byte[]>, EnumMarshallable<RunValueReader> {
  public static final RunValueReader INSTANCE = new RunValueReader();

  /** The value to pass to {@code getUsing} for an in-place read (never filled, never returned). */
  static final byte[] IN_PLACE = new byte[0];

  private static final ThreadLocal<RunCursor> BOUND = new ThreadLocal<>();

  private RunValueReader() {}

  /** Makes {@code cursor} the one this thread's in-place reads report to. */
  static void bind(final RunCursor cursor) {
    if (BOUND.get() != cursor) {
      BOUND.set(cursor);
    }
  }

  @Override
  public byte[] read(final Bytes<?> in, final long size, final byte[] using) {
    if (using == IN_PLACE) {
      final RunCursor cursor = BOUND.get();
      if (cursor != null) {
        cursor.inPlace(in.addressForRead(in.readPosition()), size);
      }
      return using;
    }
    return ByteArraySizedReader.INSTANCE.read(in, size, using);
  }

  @Override
  public RunValueReader readResolve() {
    return INSTANCE;
  }
}
