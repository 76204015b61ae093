// Each figure in a notebook's output becomes a link to its full-size image: the graphs are
// drawn wide and their labels are easier to read at full size.
document.addEventListener("DOMContentLoaded", () => {
  for (const img of document.querySelectorAll("div.cell_output img")) {
    if (img.closest("a")) continue;
    const link = document.createElement("a");
    link.href = img.src;
    link.className = "full-size";
    link.title = "Open the figure at full size";
    img.replaceWith(link);
    link.appendChild(img);
  }
});

// Search excerpts: Sphinx's search takes a page's text from its [role="main"] element, which
// in this theme also holds the article's header buttons ("System Settings Light Dark") and the
// print-only table of contents, so every excerpt began with them. The page's own text is its
// <article>: the excerpt is taken from there. (Search, from Sphinx's searchtools.js, exists
// only on search.html; it asks for excerpts after the page has loaded.)
document.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined" || !Search.htmlToText) return;
  const pageText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    const article = page.querySelector("article.bd-article");
    if (!article) return pageText(htmlString, anchor);
    for (const main of page.querySelectorAll('[role="main"]')) main.removeAttribute("role");
    article.setAttribute("role", "main");
    return pageText(page.documentElement.outerHTML, anchor);
  };
});
