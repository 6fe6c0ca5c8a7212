import type { IDataObject } from 'n8n-workflow';

/** One page of a list endpoint, as the endpoint's function in api/ reads it. */
export interface Page {
	data: IDataObject[];
	page: number;
	totalPages: number;
}

export interface PagesOptions {
	/** the first page to read (a picker's pagination token) */
	from?: number;
	pageSize: number;
	/** rows to leave out (a filter the service does not have) */
	keep?: (row: IDataObject) => boolean;
	/** a row seen on an earlier page (pages shift when a row is created while paging) */
	idOf?: (row: IDataObject) => unknown;
	/** stop reading once the rows kept are enough */
	enough: (rows: IDataObject[]) => boolean;
	maxPages?: number;
}

/**
 * The one paging loop of the package. Reads pages until the rows kept are enough, the last page
 * is read, or `maxPages` pages were read; `next` is the page to read next when there are more.
 */
export async function readPages(
	read: (page: number, pageSize: number) => Promise<Page>,
	options: PagesOptions,
): Promise<{ rows: IDataObject[]; next?: number }> {
	const rows: IDataObject[] = [];
	const seen = new Set<unknown>();
	let page = Math.max(1, options.from ?? 1);
	for (let pagesRead = 1; ; pagesRead++) {
		const current = await read(page, options.pageSize);
		for (const row of current.data) {
			if (options.idOf) {
				const id = options.idOf(row);
				if (seen.has(id)) continue;
				seen.add(id);
			}
			if (!options.keep || options.keep(row)) rows.push(row);
		}
		const more = current.data.length > 0 && current.page < current.totalPages;
		if (!more) return { rows };
		page = current.page + 1;
		if (options.enough(rows) || pagesRead >= (options.maxPages ?? Infinity)) return { rows, next: page };
	}
}
