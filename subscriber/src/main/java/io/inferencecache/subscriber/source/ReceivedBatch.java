package io.inferencecache.subscriber.source;

import io.inferencecache.subscriber.decode.EventBatch;

/**
 * One item from the event source to the {@code Reporter}: a decoded batch, preceded by the sequence
 * discontinuity detected on its arrival (if any). A discontinuity detected on a batch that failed
 * to decode travels alone ({@code batch == null}), so the reporter still resynchronises in stream
 * order.
 *
 * @param discontinuity the gap or restart to resynchronise on before the batch; may be null
 * @param batch the decoded batch; may be null only when {@code discontinuity} is not
 */
public record ReceivedBatch(SequenceTracker.Discontinuity discontinuity, EventBatch batch) {
  /** Rejects an item with neither part. */
  public ReceivedBatch {
    if (discontinuity == null && batch == null) {
      throw new IllegalArgumentException("a received batch needs a batch or a discontinuity");
    }
  }

  /** A batch with no discontinuity before it. */
  public static ReceivedBatch of(final EventBatch batch) {
    return new ReceivedBatch(null, batch);
  }
}
