// The API reference page (/api/v1/docs): the vendored Swagger UI on this service's OpenAPI document.
// A separate file, since the Content-Security-Policy allows no inline script.
document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  if (!root || typeof window.SwaggerUIBundle !== "function") return;
  window.SwaggerUIBundle({
    url: root.dataset.openapi,
    domNode: root,
    deepLinking: true,
    validatorUrl: null, // the default sends the document to validator.swagger.io: nothing leaves this site
  });
});
