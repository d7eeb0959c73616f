/**
 * The result of a list call: awaiting it gives one page; iterating it with `for await` gives every item of every
 * page from the requested offset on, fetching pages as needed.
 */
export class PagePromise<Page, Item> implements PromiseLike<Page>, AsyncIterable<Item> {
  #first: Promise<Page> | undefined;

  constructor(
    /** `iterating` is true for pages fetched by `for await`, which may use a bigger page size. */
    private readonly fetchPage: (offset: number, iterating: boolean) => Promise<Page>,
    private readonly startOffset: number,
    private readonly itemsOf: (page: Page) => Item[],
    private readonly hasMore: (page: Page) => boolean,
    private readonly keyOf?: (item: Item) => string,
  ) {}

  #page(): Promise<Page> {
    this.#first ??= this.fetchPage(this.startOffset, false);
    return this.#first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is awaited like a promise, by design
  then<A = Page, B = never>(
    onfulfilled?: ((value: Page) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#page().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page | B> {
    return this.#page().catch(onrejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    // Newest-first offset pages shift when items are added meanwhile; skipping keys already seen keeps each item
    // once.
    const seen = new Set<string>();
    let offset = this.startOffset;
    for (;;) {
      const page = await this.fetchPage(offset, true);
      const items = this.itemsOf(page);
      for (const item of items) {
        const key = this.keyOf?.(item);
        if (key !== undefined) {
          if (seen.has(key)) continue;
          seen.add(key);
        }
        yield item;
      }
      if (!this.hasMore(page) || items.length === 0) return;
      offset += items.length;
    }
  }
}
