import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { defineConfig } from "vitepress"

const content = join(import.meta.dirname, "..", "content")
const read = (file: string) =>
  existsSync(join(content, file)) ? JSON.parse(readFileSync(join(content, file), "utf8")) : undefined
const sidebar = read("sidebar.json") ?? { guides: [], packages: [] }
const api = read("api/typedoc-sidebar.json") ?? []

export default defineConfig({
  title: "Toolplane",
  description:
    "Define agent tools once; gather them from many backends, find, compose, export and execute them safely.",
  srcDir: "content",
  head: [["link", { rel: "icon", type: "image/svg+xml", href: "/favicon.svg" }]],
  cleanUrls: true,
  lastUpdated: false,
  // Dead links fail the build: every link between pages must resolve.
  ignoreDeadLinks: false,
  themeConfig: {
    nav: [
      { text: "Guides", link: "/guide/architecture" },
      { text: "Packages", link: "/packages/foundation" },
      { text: "API", link: "/api/" },
    ],
    search: { provider: "local" },
    sidebar: {
      "/guide/": [{ text: "Guides", items: sidebar.guides }],
      "/packages/": [{ text: "Packages", items: sidebar.packages }],
      "/api/": [{ text: "API reference", link: "/api/", items: api }],
    },
  },
})
