package io.inferencecache.controlplane.k8s.model;

/** A list of {@link PromptTemplate}. */
public final class PromptTemplateList extends CustomResourceList<PromptTemplate> {
  public PromptTemplateList() {
    super("PromptTemplateList");
  }
}
