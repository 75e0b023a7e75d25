package io.inferencecache.engine.internal;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.AbstractData;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.DataAccess;
import net.openhft.chronicle.wire.WireIn;
import net.openhft.chronicle.wire.WireOut;

/**
 * The prefix map's key access for calls that pass a key as a {@code byte[]} (a reader's {@code
 * getUsing}, {@link RunCursor#visit}): the same bytes as Chronicle's own byte-array access, but the
 * wrapper of each of the last few arrays is kept, so a thread that reuses its key arrays ({@link
 * KeyBuffer#exact()}) wraps nothing per call. Chronicle copies one per query context, so one per
 * thread.
 *
 * <p>Chronicle records this class's name in a persisted file's header, so it keeps its name and
 * package.
 */
public final class KeyBytesAccess extends AbstractData<byte[]> implements DataAccess<byte[]> {
  private static final int CACHED = 4;

  private transient byte[][] arrays;
  private transient BytesStore<?, ?>[] stores;
  private transient int nextSlot;
  private transient byte[] array;
  private transient BytesStore<?, ?> bs;

  public KeyBytesAccess() {
    initTransients();
  }

  private void initTransients() {
    arrays = new byte[CACHED][];
    stores = new BytesStore<?, ?>[CACHED];
    nextSlot = 0;
    array = null;
    bs = null;
  }

  @Override
  public Data<byte[]> getData(final byte[] instance) {
    array = instance;
    for (int i = 0; i < CACHED; i++) {
      if (arrays[i] == instance) {
        bs = stores[i];
        return this;
      }
    }
    final BytesStore<?, ?> wrapped = BytesStore.wrap(instance);
    final int slot = nextSlot;
    nextSlot = (slot + 1) % CACHED;
    arrays[slot] = instance;
    stores[slot] = wrapped;
    bs = wrapped;
    return this;
  }

  @Override
  public void uninit() {
    array = null;
    bs = null;
  }

  @Override
  public RandomDataInput bytes() {
    return bs;
  }

  @Override
  public long offset() {
    return bs.start();
  }

  @Override
  public long size() {
    return bs.capacity();
  }

  @Override
  public byte[] get() {
    return array;
  }

  @Override
  public byte[] getUsing(final byte[] using) {
    final byte[] a = array;
    final byte[] out = using != null && using.length == a.length ? using : new byte[a.length];
    System.arraycopy(a, 0, out, 0, a.length);
    return out;
  }

  @Override
  public DataAccess<byte[]> copy() {
    return new KeyBytesAccess();
  }

  @Override
  public void writeMarshallable(final WireOut wireOut) {
    // no configuration
  }

  @Override
  public void readMarshallable(final WireIn wireIn) {
    initTransients();
  }
}
