package io.inferencecache.controlplane.k8s.model;

import com.google.gson.annotations.SerializedName;
import java.util.List;

/** A prompt layout with stable and mutable slots ({@code prompttemplates}, short name pt). */
public final class PromptTemplate
    extends CustomResource<PromptTemplate.Spec, PromptTemplate.Status> {
  public static final CrdKind<PromptTemplate, PromptTemplateList> CRD =
      new CrdKind<>(
          PromptTemplate.class,
          PromptTemplateList.class,
          "PromptTemplate",
          "prompttemplates",
          true);

  public PromptTemplate() {
    super("PromptTemplate");
  }

  /** The template text and its slots. */
  public static class Spec {
    public String body;
    public List<Slot> slots;

    /** Model whose tokenizer gives the stable prefix's block hashes; empty: the request's. */
    public String modelId;
  }

  /** A named place in the body (a list map keyed by name). */
  public static class Slot {
    public String name;
    public SlotType type;
    public Boolean required;
    public String description;
  }

  /** Whether a slot's text is the same across requests. */
  public enum SlotType {
    @SerializedName("Stable")
    STABLE,
    @SerializedName("Mutable")
    MUTABLE
  }

  /** Observed generation, conditions ({@code Ready}) and the revision of the validated spec. */
  public static class Status extends ConditionedStatus {
    public String templateRevision;
  }
}
