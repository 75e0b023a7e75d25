package io.inferencecache.controlplane.k8s.samples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.inferencecache.controlplane.k8s.model.CrdKind;
import io.inferencecache.controlplane.k8s.validation.CrdCelRules;
import io.kubernetes.client.openapi.JSON;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SamplesTest {
  @Test
  void thereIsASampleOfEveryKind() throws Exception {
    Set<String> kinds =
        Samples.documents().stream().map(d -> d.kind().kind()).collect(Collectors.toSet());
    assertThat(kinds)
        .containsExactlyInAnyOrderElementsOf(CrdKind.all().stream().map(CrdKind::kind).toList());
    assertThat(Samples.files()).hasSize(10);
  }

  @Test
  void everySamplePassesTheCelRules() throws Exception {
    for (Samples.Doc doc : Samples.documents()) {
      assertThat(CrdCelRules.forKind(doc.kind()).validate(doc.object()))
          .as(doc.file().toString())
          .isEmpty();
    }
  }

  @Test
  void everySampleReadsIntoTheModelAndWritesBackUnchanged() throws Exception {
    ObjectMapper json = new ObjectMapper();
    for (Samples.Doc doc : Samples.documents()) {
      String original = json.writeValueAsString(doc.object());
      Object model = JSON.getGson().fromJson(original, doc.kind().type());
      // client-java's own models start with empty lists and maps: compare without empty ones.
      assertThat(withoutEmpty(JsonParser.parseString(JSON.getGson().toJson(model))))
          .as(doc.file().toString())
          .isEqualTo(withoutEmpty(JsonParser.parseString(original)));
    }
  }

  private static JsonElement withoutEmpty(JsonElement e) {
    if (e instanceof JsonObject o) {
      JsonObject out = new JsonObject();
      o.entrySet()
          .forEach(
              en -> {
                JsonElement v = withoutEmpty(en.getValue());
                boolean empty =
                    (v instanceof JsonObject x && x.isEmpty())
                        || (v instanceof JsonArray a && a.isEmpty());
                if (!empty) {
                  out.add(en.getKey(), v);
                }
              });
      return out;
    }
    if (e instanceof JsonArray a) {
      JsonArray out = new JsonArray();
      a.forEach(v -> out.add(withoutEmpty(v)));
      return out;
    }
    return e;
  }

  @Test
  void theReadmeListsEverySample() throws Exception {
    String readme = java.nio.file.Files.readString(Samples.DIR.resolve("README.md"));
    for (var file : Samples.files()) {
      assertThat(readme).contains("`" + file.getFileName() + "`");
    }
  }
}
