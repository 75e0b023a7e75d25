package io.inferencecache.controlplane.controller.status;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.EventsV1Api;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.kubernetes.client.util.PatchUtils;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes {@code events.k8s.io/v1} events (reason = action) about the controller's objects, with one
 * {@code reportingController} per recorder and the process identity as {@code reportingInstance}.
 * The same event (object, type, reason, note) repeated within {@link #SERIES_WINDOW} is not a new
 * object: the first one's {@code series} (count, lastObservedTime) is patched instead, so a push
 * that keeps failing under backoff leaves one event with a count. A failure to write is logged and
 * never fails the caller. Thread-safe.
 */
public final class EventRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);

  /** {@code reportingController} of the policy push's events. */
  public static final String CONTROLLER = "controlplane-controller";

  /** An event note holds at most 1 kB. */
  static final int NOTE_MAX = 1024;

  /** How long a repeated event extends the first one's series rather than making a new one. */
  static final Duration SERIES_WINDOW = Duration.ofMinutes(10);

  private static final int SERIES_MAX = 256;
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX", Locale.ROOT);

  private final ApiClient client;
  private final EventsV1Api events;
  private final String controller;
  private final String instance;
  private final Clock clock;
  private final Map<String, Series> series =
      new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, Series> eldest) {
          return size() > SERIES_MAX;
        }
      };

  private static final class Series {
    final String name;
    final OffsetDateTime first;
    int count = 1;

    Series(final String name, final OffsetDateTime first) {
      this.name = name;
      this.first = first;
    }
  }

  /**
   * @param controller the {@code reportingController}, e.g. {@link #CONTROLLER}
   * @param instance the {@code reportingInstance} (this process's identity)
   */
  public EventRecorder(final ApiClient client, final String controller, final String instance) {
    this(client, controller, instance, Clock.systemUTC());
  }

  EventRecorder(
      final ApiClient client, final String controller, final String instance, final Clock clock) {
    this.client = client;
    this.events = new EventsV1Api(client);
    this.controller = controller;
    this.instance = instance.length() > 128 ? instance.substring(0, 128) : instance;
    this.clock = clock;
  }

  /** A Warning event {@code reason} about {@code regarding} with {@code note}. */
  public void warning(final V1ObjectReference regarding, final String reason, final String note) {
    record(regarding, null, "Warning", reason, note);
  }

  /** A Normal event {@code reason} about {@code regarding} with {@code note}. */
  public void normal(final V1ObjectReference regarding, final String reason, final String note) {
    record(regarding, null, "Normal", reason, note);
  }

  /** A Normal event {@code reason} about {@code regarding}, {@code related} to a second object. */
  public void normal(
      final V1ObjectReference regarding,
      final V1ObjectReference related,
      final String reason,
      final String note) {
    record(regarding, related, "Normal", reason, note);
  }

  private void record(
      final V1ObjectReference regarding,
      final V1ObjectReference related,
      final String type,
      final String reason,
      final String fullNote) {
    final String note = fullNote.length() > NOTE_MAX ? fullNote.substring(0, NOTE_MAX) : fullNote;
    final OffsetDateTime now = OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC);
    final String key =
        regarding.getNamespace()
            + "/"
            + regarding.getName()
            + "/"
            + regarding.getUid()
            + "/"
            + type
            + "/"
            + reason
            + "/"
            + note;
    final Series existing;
    synchronized (series) {
      final Series s = series.get(key);
      existing =
          s != null && Duration.between(s.first, now).compareTo(SERIES_WINDOW) < 0 ? s : null;
      if (existing != null) {
        existing.count++;
      }
    }
    try {
      if (existing != null) {
        patchSeries(regarding.getNamespace(), existing, now);
        return;
      }
      final String name =
          regarding.getName() + "." + Long.toHexString(System.nanoTime()).toLowerCase(Locale.ROOT);
      final EventsV1Event event =
          new EventsV1Event()
              .metadata(new V1ObjectMeta().namespace(regarding.getNamespace()).name(name))
              .eventTime(now)
              .type(type)
              .reason(reason)
              .action(reason)
              .note(note)
              .regarding(regarding)
              .related(related)
              .reportingController(controller)
              .reportingInstance(instance);
      events.createNamespacedEvent(regarding.getNamespace(), event).execute();
      synchronized (series) {
        series.put(key, new Series(name, now));
      }
    } catch (ApiException e) {
      LOG.warn(
          "event {} on {}/{} not written: {}",
          reason,
          regarding.getNamespace(),
          regarding.getName(),
          StatusWriter.message(e));
    }
  }

  private void patchSeries(final String namespace, final Series s, final OffsetDateTime now)
      throws ApiException {
    final int count;
    synchronized (series) {
      count = s.count;
    }
    final String patch =
        "{\"series\":{\"count\":"
            + count
            + ",\"lastObservedTime\":\""
            + MICRO_TIME.format(now)
            + "\"}}";
    PatchUtils.patch(
        EventsV1Event.class,
        () -> events.patchNamespacedEvent(s.name, namespace, new V1Patch(patch)).buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        client);
  }
}
