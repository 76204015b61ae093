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
