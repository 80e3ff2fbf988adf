// The deep-linking answer goes back to the LMS by itself; the button stays for a browser without JavaScript.
document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("lti-return");
  if (form) form.submit();
});
