export * from './interact';
